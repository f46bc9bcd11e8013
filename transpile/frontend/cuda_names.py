"""The names NVRTC's own headers declare at file scope, as kdsl compiles
(``cuda_fp16.h``, ``cuda_bf16.h``, the fp8/fp6/fp4 headers and
``cooperative_groups.h`` included): CUDA's math library, intrinsics, atomics,
vector types and their ``make_`` functions, texture and surface functions,
the runtime's types and enumerators, and macros such as ``NULL``.

Generated, then checked by hand: every identifier of the CUDA 13.0 headers
above that ``namespace p { using ::NAME; }`` (or ``#ifdef NAME``) accepts
under NVRTC.  Names starting with ``__`` or ``_`` and a capital are reserved
by rule (``names.py``), not listed.  tests/lowering/test_cpp_names.py
compiles a kernel using every one of them as a variable, a parameter and a
device function.
"""

DECLARED = frozenset("""
    CHAR_BIT CUDARTAPI CUDART_CB CUDA_C_16BF CUDA_C_16F CUDA_C_16I CUDA_C_16U CUDA_C_32F
    CUDA_C_32I CUDA_C_32U CUDA_C_4I CUDA_C_4U CUDA_C_64F CUDA_C_64I CUDA_C_64U CUDA_C_8I
    CUDA_C_8U CUDA_EMULATION_STRATEGY_DEFAULT CUDA_EMULATION_STRATEGY_EAGER
    CUDA_EMULATION_STRATEGY_PERFORMANT CUDA_IPC_HANDLE_SIZE CUDA_R_16BF CUDA_R_16F
    CUDA_R_16I CUDA_R_16U CUDA_R_32F CUDA_R_32I CUDA_R_32U CUDA_R_4F_E2M1 CUDA_R_4I
    CUDA_R_4U CUDA_R_64F CUDA_R_64I CUDA_R_64U CUDA_R_6F_E2M3 CUDA_R_6F_E3M2
    CUDA_R_8F_E4M3 CUDA_R_8F_E5M2 CUDA_R_8F_UE4M3 CUDA_R_8F_UE8M0 CUDA_R_8I CUDA_R_8U
    CUDAlogLevel_enum CU_UUID_HAS_BEEN_DEFINED CUevent_st CUexternalMemory_st
    CUexternalSemaphore_st CUfunc_st CUgraphDeviceUpdatableNode_st CUgraphExec_st
    CUgraphNode_st CUgraph_st CUkern_st CUlib_st CUlogsCallbackEntry_st
    CUmemPoolHandle_st CUstream_st CUuserObject_st CUuuid CUuuid_st DBL_MAX FLT_MAX
    IF_DEVICE_OR_CUDACC INT_MAX INT_MIN LLONG_MAX MAJOR_VERSION MINOR_VERSION NULL
    NV_IF_ELSE_TARGET NV_IF_TARGET NV_IS_DEVICE NV_NO_TARGET NV_PROVIDES_SM_53
    NV_PROVIDES_SM_60 NV_PROVIDES_SM_75 NV_PROVIDES_SM_80 NV_PROVIDES_SM_90 PATCH_LEVEL
    UINT_MAX abs acos acosf acosh acoshf all any asin asinf asinh asinhf atan atan2
    atan2f atanf atanh atanhf atomicAdd atomicAdd_block atomicAdd_system atomicAnd
    atomicAnd_block atomicAnd_system atomicCAS atomicCAS_block atomicCAS_system
    atomicDec atomicDec_block atomicDec_system atomicExch atomicExch_block
    atomicExch_system atomicInc atomicInc_block atomicInc_system atomicMax
    atomicMax_block atomicMax_system atomicMin atomicMin_block atomicMin_system atomicOr
    atomicOr_block atomicOr_system atomicSub atomicSub_block atomicSub_system atomicXor
    atomicXor_block atomicXor_system ballot blockDim blockIdx cbrt cbrtf ceil ceilf
    char1 char2 char3 char4 clock clock64 clock_t copysign copysignf cos cosf cosh coshf
    cospi cospif cudaAccessPolicyWindow cudaAccessProperty cudaAccessPropertyNormal
    cudaAccessPropertyPersisting cudaAccessPropertyStreaming cudaAddressModeBorder
    cudaAddressModeClamp cudaAddressModeMirror cudaAddressModeWrap cudaArray
    cudaArrayColorAttachment cudaArrayCubemap cudaArrayDefault cudaArrayDeferredMapping
    cudaArrayLayered cudaArrayMemoryRequirements cudaArraySparse
    cudaArraySparseProperties cudaArraySparsePropertiesSingleMipTail
    cudaArraySurfaceLoadStore cudaArrayTextureGather cudaArray_const_t cudaArray_t
    cudaAsyncCallback cudaAsyncCallbackEntry cudaAsyncCallbackHandle_t
    cudaAsyncNotificationInfo cudaAsyncNotificationInfo_t cudaAsyncNotificationType
    cudaAsyncNotificationTypeOverBudget cudaAsyncNotificationType_enum
    cudaAtomicCapabilityReduction cudaAtomicCapabilityScalar128
    cudaAtomicCapabilityScalar32 cudaAtomicCapabilityScalar64 cudaAtomicCapabilitySigned
    cudaAtomicCapabilityUnsigned cudaAtomicCapabilityVector32x4 cudaAtomicOperation
    cudaAtomicOperationAnd cudaAtomicOperationCAS cudaAtomicOperationCapability
    cudaAtomicOperationExchange cudaAtomicOperationFloatAdd cudaAtomicOperationFloatMax
    cudaAtomicOperationFloatMin cudaAtomicOperationIntegerAdd
    cudaAtomicOperationIntegerDecrement cudaAtomicOperationIntegerIncrement
    cudaAtomicOperationIntegerMax cudaAtomicOperationIntegerMin cudaAtomicOperationOr
    cudaAtomicOperationXOR cudaBoundaryModeClamp cudaBoundaryModeTrap
    cudaBoundaryModeZero cudaCGScope cudaCGScopeGrid cudaCGScopeInvalid
    cudaCGScopeReserved cudaChannelFormatDesc cudaChannelFormatKind
    cudaChannelFormatKindFloat cudaChannelFormatKindNV12 cudaChannelFormatKindNone
    cudaChannelFormatKindSigned cudaChannelFormatKindSignedBlockCompressed4
    cudaChannelFormatKindSignedBlockCompressed5
    cudaChannelFormatKindSignedBlockCompressed6H
    cudaChannelFormatKindSignedNormalized16X1 cudaChannelFormatKindSignedNormalized16X2
    cudaChannelFormatKindSignedNormalized16X4 cudaChannelFormatKindSignedNormalized8X1
    cudaChannelFormatKindSignedNormalized8X2 cudaChannelFormatKindSignedNormalized8X4
    cudaChannelFormatKindUnsigned cudaChannelFormatKindUnsignedBlockCompressed1
    cudaChannelFormatKindUnsignedBlockCompressed1SRGB
    cudaChannelFormatKindUnsignedBlockCompressed2
    cudaChannelFormatKindUnsignedBlockCompressed2SRGB
    cudaChannelFormatKindUnsignedBlockCompressed3
    cudaChannelFormatKindUnsignedBlockCompressed3SRGB
    cudaChannelFormatKindUnsignedBlockCompressed4
    cudaChannelFormatKindUnsignedBlockCompressed5
    cudaChannelFormatKindUnsignedBlockCompressed6H
    cudaChannelFormatKindUnsignedBlockCompressed7
    cudaChannelFormatKindUnsignedBlockCompressed7SRGB
    cudaChannelFormatKindUnsignedNormalized1010102
    cudaChannelFormatKindUnsignedNormalized16X1
    cudaChannelFormatKindUnsignedNormalized16X2
    cudaChannelFormatKindUnsignedNormalized16X4
    cudaChannelFormatKindUnsignedNormalized8X1
    cudaChannelFormatKindUnsignedNormalized8X2
    cudaChannelFormatKindUnsignedNormalized8X4 cudaChildGraphNodeParams
    cudaClusterSchedulingPolicy cudaClusterSchedulingPolicyDefault
    cudaClusterSchedulingPolicyLoadBalancing cudaClusterSchedulingPolicySpread
    cudaComputeMode cudaComputeModeDefault cudaComputeModeExclusive
    cudaComputeModeExclusiveProcess cudaComputeModeProhibited cudaConditionalNodeParams
    cudaCpuDeviceId cudaDataType cudaDataType_t cudaDevAttrAsyncEngineCount
    cudaDevAttrCanFlushRemoteWrites cudaDevAttrCanMapHostMemory
    cudaDevAttrCanUseHostPointerForRegisteredMem cudaDevAttrClockRate
    cudaDevAttrClusterLaunch cudaDevAttrComputeCapabilityMajor
    cudaDevAttrComputeCapabilityMinor cudaDevAttrComputeMode
    cudaDevAttrComputePreemptionSupported cudaDevAttrConcurrentKernels
    cudaDevAttrConcurrentManagedAccess cudaDevAttrCooperativeLaunch
    cudaDevAttrD3D12CigSupported cudaDevAttrDeferredMappingCudaArraySupported
    cudaDevAttrDirectManagedMemAccessFromHost cudaDevAttrEccEnabled
    cudaDevAttrGPUDirectRDMASupported cudaDevAttrGPUDirectRDMAWritesOrdering
    cudaDevAttrGlobalL1CacheSupported cudaDevAttrGlobalMemoryBusWidth
    cudaDevAttrGpuOverlap cudaDevAttrGpuPciDeviceId cudaDevAttrGpuPciSubsystemId
    cudaDevAttrHostMemoryPoolsSupported cudaDevAttrHostNativeAtomicSupported
    cudaDevAttrHostNumaId cudaDevAttrHostNumaMemoryPoolsSupported
    cudaDevAttrHostNumaMultinodeIpcSupported cudaDevAttrHostRegisterReadOnlySupported
    cudaDevAttrHostRegisterSupported cudaDevAttrIntegrated cudaDevAttrIpcEventSupport
    cudaDevAttrIsMultiGpuBoard cudaDevAttrKernelExecTimeout cudaDevAttrL2CacheSize
    cudaDevAttrLocalL1CacheSupported cudaDevAttrManagedMemory cudaDevAttrMax
    cudaDevAttrMaxAccessPolicyWindowSize cudaDevAttrMaxBlockDimX cudaDevAttrMaxBlockDimY
    cudaDevAttrMaxBlockDimZ cudaDevAttrMaxBlocksPerMultiprocessor cudaDevAttrMaxGridDimX
    cudaDevAttrMaxGridDimY cudaDevAttrMaxGridDimZ cudaDevAttrMaxPersistingL2CacheSize
    cudaDevAttrMaxPitch cudaDevAttrMaxRegistersPerBlock
    cudaDevAttrMaxRegistersPerMultiprocessor cudaDevAttrMaxSharedMemoryPerBlock
    cudaDevAttrMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerMultiprocessor
    cudaDevAttrMaxSurface1DLayeredLayers cudaDevAttrMaxSurface1DLayeredWidth
    cudaDevAttrMaxSurface1DWidth cudaDevAttrMaxSurface2DHeight
    cudaDevAttrMaxSurface2DLayeredHeight cudaDevAttrMaxSurface2DLayeredLayers
    cudaDevAttrMaxSurface2DLayeredWidth cudaDevAttrMaxSurface2DWidth
    cudaDevAttrMaxSurface3DDepth cudaDevAttrMaxSurface3DHeight
    cudaDevAttrMaxSurface3DWidth cudaDevAttrMaxSurfaceCubemapLayeredLayers
    cudaDevAttrMaxSurfaceCubemapLayeredWidth cudaDevAttrMaxSurfaceCubemapWidth
    cudaDevAttrMaxTexture1DLayeredLayers cudaDevAttrMaxTexture1DLayeredWidth
    cudaDevAttrMaxTexture1DLinearWidth cudaDevAttrMaxTexture1DMipmappedWidth
    cudaDevAttrMaxTexture1DWidth cudaDevAttrMaxTexture2DGatherHeight
    cudaDevAttrMaxTexture2DGatherWidth cudaDevAttrMaxTexture2DHeight
    cudaDevAttrMaxTexture2DLayeredHeight cudaDevAttrMaxTexture2DLayeredLayers
    cudaDevAttrMaxTexture2DLayeredWidth cudaDevAttrMaxTexture2DLinearHeight
    cudaDevAttrMaxTexture2DLinearPitch cudaDevAttrMaxTexture2DLinearWidth
    cudaDevAttrMaxTexture2DMipmappedHeight cudaDevAttrMaxTexture2DMipmappedWidth
    cudaDevAttrMaxTexture2DWidth cudaDevAttrMaxTexture3DDepth
    cudaDevAttrMaxTexture3DDepthAlt cudaDevAttrMaxTexture3DHeight
    cudaDevAttrMaxTexture3DHeightAlt cudaDevAttrMaxTexture3DWidth
    cudaDevAttrMaxTexture3DWidthAlt cudaDevAttrMaxTextureCubemapLayeredLayers
    cudaDevAttrMaxTextureCubemapLayeredWidth cudaDevAttrMaxTextureCubemapWidth
    cudaDevAttrMaxThreadsPerBlock cudaDevAttrMaxThreadsPerMultiProcessor
    cudaDevAttrMemSyncDomainCount cudaDevAttrMemoryClockRate
    cudaDevAttrMemoryPoolSupportedHandleTypes cudaDevAttrMemoryPoolsSupported
    cudaDevAttrMpsEnabled cudaDevAttrMultiGpuBoardGroupID cudaDevAttrMultiProcessorCount
    cudaDevAttrNumaConfig cudaDevAttrNumaId
    cudaDevAttrOnlyPartialHostNativeAtomicSupported cudaDevAttrPageableMemoryAccess
    cudaDevAttrPageableMemoryAccessUsesHostPageTables cudaDevAttrPciBusId
    cudaDevAttrPciDeviceId cudaDevAttrPciDomainId cudaDevAttrReserved122
    cudaDevAttrReserved123 cudaDevAttrReserved124 cudaDevAttrReserved127
    cudaDevAttrReserved128 cudaDevAttrReserved129 cudaDevAttrReserved132
    cudaDevAttrReserved141 cudaDevAttrReserved145 cudaDevAttrReserved92
    cudaDevAttrReserved93 cudaDevAttrReserved94 cudaDevAttrReserved96
    cudaDevAttrReservedSharedMemoryPerBlock cudaDevAttrSingleToDoublePrecisionPerfRatio
    cudaDevAttrSparseCudaArraySupported cudaDevAttrStreamPrioritiesSupported
    cudaDevAttrSurfaceAlignment cudaDevAttrTccDriver cudaDevAttrTextureAlignment
    cudaDevAttrTexturePitchAlignment cudaDevAttrTimelineSemaphoreInteropSupported
    cudaDevAttrTotalConstantMemory cudaDevAttrUnifiedAddressing
    cudaDevAttrVulkanCigSupported cudaDevAttrWarpSize cudaDevP2PAttrAccessSupported
    cudaDevP2PAttrCudaArrayAccessSupported cudaDevP2PAttrNativeAtomicSupported
    cudaDevP2PAttrOnlyPartialNativeAtomicSupported cudaDevP2PAttrPerformanceRank
    cudaDeviceAttr cudaDeviceBlockingSync cudaDeviceLmemResizeToMax cudaDeviceMapHost
    cudaDeviceMask cudaDeviceNumaConfig cudaDeviceNumaConfigNone
    cudaDeviceNumaConfigNumaNode cudaDeviceP2PAttr cudaDeviceProp cudaDeviceScheduleAuto
    cudaDeviceScheduleBlockingSync cudaDeviceScheduleMask cudaDeviceScheduleSpin
    cudaDeviceScheduleYield cudaDeviceSyncMemops cudaDriverEntryPointQueryResult
    cudaDriverEntryPointSuccess cudaDriverEntryPointSymbolNotFound
    cudaDriverEntryPointVersionNotSufficent cudaEmulationStrategy
    cudaEmulationStrategy_t cudaEnableDefault cudaEnableLegacyStream
    cudaEnablePerThreadDefaultStream cudaError cudaErrorAddressOfConstant
    cudaErrorAlreadyAcquired cudaErrorAlreadyMapped cudaErrorApiFailureBase
    cudaErrorArrayIsMapped cudaErrorAssert cudaErrorCallRequiresNewerDriver
    cudaErrorCapturedEvent cudaErrorCdpNotSupported cudaErrorCdpVersionMismatch
    cudaErrorCompatNotSupportedOnDevice cudaErrorContained cudaErrorContextIsDestroyed
    cudaErrorCooperativeLaunchTooLarge cudaErrorCudartUnloading
    cudaErrorDeviceAlreadyInUse cudaErrorDeviceNotLicensed cudaErrorDeviceUninitialized
    cudaErrorDevicesUnavailable cudaErrorDuplicateSurfaceName
    cudaErrorDuplicateTextureName cudaErrorDuplicateVariableName
    cudaErrorECCUncorrectable cudaErrorExternalDevice cudaErrorFileNotFound
    cudaErrorFunctionNotLoaded cudaErrorGraphExecUpdateFailure
    cudaErrorHardwareStackError cudaErrorHostMemoryAlreadyRegistered
    cudaErrorHostMemoryNotRegistered cudaErrorIllegalAddress cudaErrorIllegalInstruction
    cudaErrorIllegalState cudaErrorIncompatibleDriverContext
    cudaErrorInitializationError cudaErrorInsufficientDriver
    cudaErrorInvalidAddressSpace cudaErrorInvalidChannelDescriptor
    cudaErrorInvalidClusterSize cudaErrorInvalidConfiguration cudaErrorInvalidDevice
    cudaErrorInvalidDeviceFunction cudaErrorInvalidDevicePointer
    cudaErrorInvalidFilterSetting cudaErrorInvalidGraphicsContext
    cudaErrorInvalidHostPointer cudaErrorInvalidKernelImage
    cudaErrorInvalidMemcpyDirection cudaErrorInvalidNormSetting cudaErrorInvalidPc
    cudaErrorInvalidPitchValue cudaErrorInvalidPtx cudaErrorInvalidResourceConfiguration
    cudaErrorInvalidResourceHandle cudaErrorInvalidResourceType cudaErrorInvalidSource
    cudaErrorInvalidSurface cudaErrorInvalidSymbol cudaErrorInvalidTexture
    cudaErrorInvalidTextureBinding cudaErrorInvalidValue cudaErrorJitCompilationDisabled
    cudaErrorJitCompilerNotFound cudaErrorLaunchFailure cudaErrorLaunchFileScopedSurf
    cudaErrorLaunchFileScopedTex cudaErrorLaunchIncompatibleTexturing
    cudaErrorLaunchMaxDepthExceeded cudaErrorLaunchOutOfResources
    cudaErrorLaunchPendingCountExceeded cudaErrorLaunchTimeout cudaErrorLossyQuery
    cudaErrorMapBufferObjectFailed cudaErrorMemoryAllocation
    cudaErrorMemoryValueTooLarge cudaErrorMisalignedAddress
    cudaErrorMissingConfiguration cudaErrorMixedDeviceExecution
    cudaErrorMpsClientTerminated cudaErrorMpsConnectionFailed
    cudaErrorMpsMaxClientsReached cudaErrorMpsMaxConnectionsReached
    cudaErrorMpsRpcFailure cudaErrorMpsServerNotReady cudaErrorNoDevice
    cudaErrorNoKernelImageForDevice cudaErrorNotMapped cudaErrorNotMappedAsArray
    cudaErrorNotMappedAsPointer cudaErrorNotPermitted cudaErrorNotReady
    cudaErrorNotSupported cudaErrorNotYetImplemented cudaErrorNvlinkUncorrectable
    cudaErrorOperatingSystem cudaErrorPeerAccessAlreadyEnabled
    cudaErrorPeerAccessNotEnabled cudaErrorPeerAccessUnsupported
    cudaErrorPriorLaunchFailure cudaErrorProfilerAlreadyStarted
    cudaErrorProfilerAlreadyStopped cudaErrorProfilerDisabled
    cudaErrorProfilerNotInitialized cudaErrorSetOnActiveProcess
    cudaErrorSharedObjectInitFailed cudaErrorSharedObjectSymbolNotFound
    cudaErrorSoftwareValidityNotEstablished cudaErrorStartupFailure
    cudaErrorStreamCaptureImplicit cudaErrorStreamCaptureInvalidated
    cudaErrorStreamCaptureIsolation cudaErrorStreamCaptureMerge
    cudaErrorStreamCaptureUnjoined cudaErrorStreamCaptureUnmatched
    cudaErrorStreamCaptureUnsupported cudaErrorStreamCaptureWrongThread
    cudaErrorStubLibrary cudaErrorSymbolNotFound cudaErrorSyncDepthExceeded
    cudaErrorSynchronizationError cudaErrorSystemDriverMismatch cudaErrorSystemNotReady
    cudaErrorTensorMemoryLeak cudaErrorTextureFetchFailed cudaErrorTextureNotBound
    cudaErrorTimeout cudaErrorTooManyPeers cudaErrorUnknown
    cudaErrorUnmapBufferObjectFailed cudaErrorUnsupportedDevSideSync
    cudaErrorUnsupportedExecAffinity cudaErrorUnsupportedLimit
    cudaErrorUnsupportedPtxVersion cudaError_t cudaEventBlockingSync cudaEventDefault
    cudaEventDisableTiming cudaEventInterprocess cudaEventRecordDefault
    cudaEventRecordExternal cudaEventRecordNodeParams cudaEventWaitDefault
    cudaEventWaitExternal cudaEventWaitNodeParams cudaEvent_t cudaExtent
    cudaExternalMemoryBufferDesc cudaExternalMemoryDedicated
    cudaExternalMemoryHandleDesc cudaExternalMemoryHandleType
    cudaExternalMemoryHandleTypeD3D11Resource
    cudaExternalMemoryHandleTypeD3D11ResourceKmt cudaExternalMemoryHandleTypeD3D12Heap
    cudaExternalMemoryHandleTypeD3D12Resource cudaExternalMemoryHandleTypeNvSciBuf
    cudaExternalMemoryHandleTypeOpaqueFd cudaExternalMemoryHandleTypeOpaqueWin32
    cudaExternalMemoryHandleTypeOpaqueWin32Kmt cudaExternalMemoryMipmappedArrayDesc
    cudaExternalMemory_t cudaExternalSemaphoreHandleDesc cudaExternalSemaphoreHandleType
    cudaExternalSemaphoreHandleTypeD3D11Fence cudaExternalSemaphoreHandleTypeD3D12Fence
    cudaExternalSemaphoreHandleTypeKeyedMutex
    cudaExternalSemaphoreHandleTypeKeyedMutexKmt
    cudaExternalSemaphoreHandleTypeNvSciSync cudaExternalSemaphoreHandleTypeOpaqueFd
    cudaExternalSemaphoreHandleTypeOpaqueWin32
    cudaExternalSemaphoreHandleTypeOpaqueWin32Kmt
    cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd
    cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32
    cudaExternalSemaphoreSignalNodeParams cudaExternalSemaphoreSignalNodeParamsV2
    cudaExternalSemaphoreSignalParams cudaExternalSemaphoreSignalSkipNvSciBufMemSync
    cudaExternalSemaphoreWaitNodeParams cudaExternalSemaphoreWaitNodeParamsV2
    cudaExternalSemaphoreWaitParams cudaExternalSemaphoreWaitSkipNvSciBufMemSync
    cudaExternalSemaphore_t cudaFilterModeLinear cudaFilterModePoint
    cudaFlushGPUDirectRDMAWritesOptionHost cudaFlushGPUDirectRDMAWritesOptionMemOps
    cudaFlushGPUDirectRDMAWritesOptions cudaFlushGPUDirectRDMAWritesScope
    cudaFlushGPUDirectRDMAWritesTarget cudaFlushGPUDirectRDMAWritesTargetCurrentDevice
    cudaFlushGPUDirectRDMAWritesToAllDevices cudaFlushGPUDirectRDMAWritesToOwner
    cudaFormatModeAuto cudaFormatModeForced cudaFuncAttribute
    cudaFuncAttributeClusterDimMustBeSet
    cudaFuncAttributeClusterSchedulingPolicyPreference cudaFuncAttributeMax
    cudaFuncAttributeMaxDynamicSharedMemorySize
    cudaFuncAttributeNonPortableClusterSizeAllowed
    cudaFuncAttributePreferredSharedMemoryCarveout cudaFuncAttributeRequiredClusterDepth
    cudaFuncAttributeRequiredClusterHeight cudaFuncAttributeRequiredClusterWidth
    cudaFuncAttributes cudaFuncCache cudaFuncCachePreferEqual cudaFuncCachePreferL1
    cudaFuncCachePreferNone cudaFuncCachePreferShared cudaFunction_t
    cudaGPUDirectRDMAWritesOrdering cudaGPUDirectRDMAWritesOrderingAllDevices
    cudaGPUDirectRDMAWritesOrderingNone cudaGPUDirectRDMAWritesOrderingOwner
    cudaGetDriverEntryPointFlags cudaGraphChildGraphNodeOwnership
    cudaGraphChildGraphOwnershipClone cudaGraphChildGraphOwnershipMove
    cudaGraphCondAssignDefault cudaGraphCondTypeIf cudaGraphCondTypeSwitch
    cudaGraphCondTypeWhile cudaGraphConditionalHandle cudaGraphConditionalHandleFlags
    cudaGraphConditionalNodeType cudaGraphDebugDotFlags
    cudaGraphDebugDotFlagsConditionalNodeParams cudaGraphDebugDotFlagsEventNodeParams
    cudaGraphDebugDotFlagsExtSemasSignalNodeParams
    cudaGraphDebugDotFlagsExtSemasWaitNodeParams cudaGraphDebugDotFlagsHandles
    cudaGraphDebugDotFlagsHostNodeParams cudaGraphDebugDotFlagsKernelNodeAttributes
    cudaGraphDebugDotFlagsKernelNodeParams cudaGraphDebugDotFlagsMemcpyNodeParams
    cudaGraphDebugDotFlagsMemsetNodeParams cudaGraphDebugDotFlagsVerbose
    cudaGraphDependencyType cudaGraphDependencyTypeDefault
    cudaGraphDependencyTypeProgrammatic cudaGraphDependencyType_enum
    cudaGraphDeviceNode_t cudaGraphEdgeData cudaGraphEdgeData_st
    cudaGraphExecUpdateError cudaGraphExecUpdateErrorAttributesChanged
    cudaGraphExecUpdateErrorFunctionChanged cudaGraphExecUpdateErrorNodeTypeChanged
    cudaGraphExecUpdateErrorNotSupported cudaGraphExecUpdateErrorParametersChanged
    cudaGraphExecUpdateErrorTopologyChanged
    cudaGraphExecUpdateErrorUnsupportedFunctionChange cudaGraphExecUpdateResult
    cudaGraphExecUpdateResultInfo cudaGraphExecUpdateResultInfo_st
    cudaGraphExecUpdateSuccess cudaGraphExec_t
    cudaGraphInstantiateConditionalHandleUnused cudaGraphInstantiateError
    cudaGraphInstantiateFlagAutoFreeOnLaunch cudaGraphInstantiateFlagDeviceLaunch
    cudaGraphInstantiateFlagUpload cudaGraphInstantiateFlagUseNodePriority
    cudaGraphInstantiateFlags cudaGraphInstantiateInvalidStructure
    cudaGraphInstantiateMultipleDevicesNotSupported
    cudaGraphInstantiateNodeOperationNotSupported cudaGraphInstantiateParams
    cudaGraphInstantiateParams_st cudaGraphInstantiateResult cudaGraphInstantiateSuccess
    cudaGraphKernelNodeField cudaGraphKernelNodeFieldEnabled
    cudaGraphKernelNodeFieldGridDim cudaGraphKernelNodeFieldInvalid
    cudaGraphKernelNodeFieldParam cudaGraphKernelNodePortDefault
    cudaGraphKernelNodePortLaunchCompletion cudaGraphKernelNodePortProgrammatic
    cudaGraphKernelNodeUpdate cudaGraphMemAttrReservedMemCurrent
    cudaGraphMemAttrReservedMemHigh cudaGraphMemAttrUsedMemCurrent
    cudaGraphMemAttrUsedMemHigh cudaGraphMemAttributeType cudaGraphNodeParams
    cudaGraphNodeType cudaGraphNodeTypeConditional cudaGraphNodeTypeCount
    cudaGraphNodeTypeEmpty cudaGraphNodeTypeEventRecord
    cudaGraphNodeTypeExtSemaphoreSignal cudaGraphNodeTypeExtSemaphoreWait
    cudaGraphNodeTypeGraph cudaGraphNodeTypeHost cudaGraphNodeTypeKernel
    cudaGraphNodeTypeMemAlloc cudaGraphNodeTypeMemFree cudaGraphNodeTypeMemcpy
    cudaGraphNodeTypeMemset cudaGraphNodeTypeWaitEvent cudaGraphNode_t
    cudaGraphUserObjectMove cudaGraph_t cudaGraphicsCubeFace
    cudaGraphicsCubeFaceNegativeX cudaGraphicsCubeFaceNegativeY
    cudaGraphicsCubeFaceNegativeZ cudaGraphicsCubeFacePositiveX
    cudaGraphicsCubeFacePositiveY cudaGraphicsCubeFacePositiveZ cudaGraphicsMapFlags
    cudaGraphicsMapFlagsNone cudaGraphicsMapFlagsReadOnly
    cudaGraphicsMapFlagsWriteDiscard cudaGraphicsRegisterFlags
    cudaGraphicsRegisterFlagsNone cudaGraphicsRegisterFlagsReadOnly
    cudaGraphicsRegisterFlagsSurfaceLoadStore cudaGraphicsRegisterFlagsTextureGather
    cudaGraphicsRegisterFlagsWriteDiscard cudaGraphicsResource cudaGraphicsResource_t
    cudaHostAllocDefault cudaHostAllocMapped cudaHostAllocPortable
    cudaHostAllocWriteCombined cudaHostFn_t cudaHostNodeParams cudaHostNodeParamsV2
    cudaHostRegisterDefault cudaHostRegisterIoMemory cudaHostRegisterMapped
    cudaHostRegisterPortable cudaHostRegisterReadOnly cudaInitDeviceFlagsAreValid
    cudaInvalidDeviceId cudaIpcEventHandle_st cudaIpcEventHandle_t cudaIpcMemHandle_st
    cudaIpcMemHandle_t cudaIpcMemLazyEnablePeerAccess cudaJitCacheMode
    cudaJitCacheOptionCA cudaJitCacheOptionCG cudaJitCacheOptionNone
    cudaJitErrorLogBuffer cudaJitErrorLogBufferSizeBytes cudaJitFallbackStrategy
    cudaJitGenerateDebugInfo cudaJitGenerateLineInfo cudaJitInfoLogBuffer
    cudaJitInfoLogBufferSizeBytes cudaJitLogVerbose cudaJitMaxRegisters
    cudaJitMaxThreadsPerBlock cudaJitMinCtaPerSm cudaJitOptimizationLevel cudaJitOption
    cudaJitOverrideDirectiveValues cudaJitPositionIndependentCode cudaJitThreadsPerBlock
    cudaJitWallTime cudaJit_CacheMode cudaJit_Fallback cudaKernelNodeAttrID
    cudaKernelNodeAttrValue cudaKernelNodeAttributeAccessPolicyWindow
    cudaKernelNodeAttributeClusterDimension
    cudaKernelNodeAttributeClusterSchedulingPolicyPreference
    cudaKernelNodeAttributeCooperative cudaKernelNodeAttributeDeviceUpdatableKernelNode
    cudaKernelNodeAttributeMemSyncDomain cudaKernelNodeAttributeMemSyncDomainMap
    cudaKernelNodeAttributeNvlinkUtilCentricScheduling
    cudaKernelNodeAttributePreferredSharedMemoryCarveout cudaKernelNodeAttributePriority
    cudaKernelNodeParams cudaKernelNodeParamsV2 cudaKernel_t cudaLaunchAttribute
    cudaLaunchAttributeAccessPolicyWindow cudaLaunchAttributeClusterDimension
    cudaLaunchAttributeClusterSchedulingPolicyPreference cudaLaunchAttributeCooperative
    cudaLaunchAttributeDeviceUpdatableKernelNode cudaLaunchAttributeID
    cudaLaunchAttributeIgnore cudaLaunchAttributeLaunchCompletionEvent
    cudaLaunchAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomainMap
    cudaLaunchAttributeNvlinkUtilCentricScheduling
    cudaLaunchAttributePreferredClusterDimension
    cudaLaunchAttributePreferredSharedMemoryCarveout cudaLaunchAttributePriority
    cudaLaunchAttributeProgrammaticEvent
    cudaLaunchAttributeProgrammaticStreamSerialization
    cudaLaunchAttributeSynchronizationPolicy cudaLaunchAttributeValue
    cudaLaunchAttribute_st cudaLaunchConfig_st cudaLaunchConfig_t
    cudaLaunchMemSyncDomain cudaLaunchMemSyncDomainDefault cudaLaunchMemSyncDomainMap
    cudaLaunchMemSyncDomainMap_st cudaLaunchMemSyncDomainRemote
    cudaLibraryBinaryIsPreserved cudaLibraryHostUniversalFunctionAndDataTable
    cudaLibraryOption cudaLibrary_t cudaLimit cudaLimitDevRuntimePendingLaunchCount
    cudaLimitDevRuntimeSyncDepth cudaLimitMallocHeapSize cudaLimitMaxL2FetchGranularity
    cudaLimitPersistingL2CacheSize cudaLimitPrintfFifoSize cudaLimitStackSize
    cudaLogIterator cudaLogLevel cudaLogLevelError cudaLogLevelWarning
    cudaLogsCallbackHandle cudaMemAccessDesc cudaMemAccessFlags
    cudaMemAccessFlagsProtNone cudaMemAccessFlagsProtRead
    cudaMemAccessFlagsProtReadWrite cudaMemAdviseSetAccessedBy
    cudaMemAdviseSetPreferredLocation cudaMemAdviseSetReadMostly
    cudaMemAdviseUnsetAccessedBy cudaMemAdviseUnsetPreferredLocation
    cudaMemAdviseUnsetReadMostly cudaMemAllocNodeParams cudaMemAllocNodeParamsV2
    cudaMemAllocationHandleType cudaMemAllocationType cudaMemAllocationTypeInvalid
    cudaMemAllocationTypeManaged cudaMemAllocationTypeMax cudaMemAllocationTypePinned
    cudaMemAttachGlobal cudaMemAttachHost cudaMemAttachSingle cudaMemFabricHandle_st
    cudaMemFabricHandle_t cudaMemFreeNodeParams cudaMemHandleTypeFabric
    cudaMemHandleTypeNone cudaMemHandleTypePosixFileDescriptor cudaMemHandleTypeWin32
    cudaMemHandleTypeWin32Kmt cudaMemLocation cudaMemLocationType
    cudaMemLocationTypeDevice cudaMemLocationTypeHost cudaMemLocationTypeHostNuma
    cudaMemLocationTypeHostNumaCurrent cudaMemLocationTypeInvalid
    cudaMemLocationTypeNone cudaMemPoolAttr cudaMemPoolAttrReleaseThreshold
    cudaMemPoolAttrReservedMemCurrent cudaMemPoolAttrReservedMemHigh
    cudaMemPoolAttrUsedMemCurrent cudaMemPoolAttrUsedMemHigh
    cudaMemPoolCreateUsageHwDecompress cudaMemPoolProps cudaMemPoolPtrExportData
    cudaMemPoolReuseAllowInternalDependencies cudaMemPoolReuseAllowOpportunistic
    cudaMemPoolReuseFollowEventDependencies cudaMemPool_t cudaMemRangeAttribute
    cudaMemRangeAttributeAccessedBy cudaMemRangeAttributeLastPrefetchLocation
    cudaMemRangeAttributeLastPrefetchLocationId
    cudaMemRangeAttributeLastPrefetchLocationType cudaMemRangeAttributePreferredLocation
    cudaMemRangeAttributePreferredLocationId cudaMemRangeAttributePreferredLocationType
    cudaMemRangeAttributeReadMostly cudaMemcpy3DBatchOp cudaMemcpy3DOperand
    cudaMemcpy3DOperandType cudaMemcpy3DParms cudaMemcpy3DPeerParms cudaMemcpyAttributes
    cudaMemcpyDefault cudaMemcpyDeviceToDevice cudaMemcpyDeviceToHost
    cudaMemcpyFlagDefault cudaMemcpyFlagPreferOverlapWithCompute cudaMemcpyFlags
    cudaMemcpyHostToDevice cudaMemcpyHostToHost cudaMemcpyKind cudaMemcpyNodeParams
    cudaMemcpyOperandTypeArray cudaMemcpyOperandTypeMax cudaMemcpyOperandTypePointer
    cudaMemcpySrcAccessOrder cudaMemcpySrcAccessOrderAny
    cudaMemcpySrcAccessOrderDuringApiCall cudaMemcpySrcAccessOrderInvalid
    cudaMemcpySrcAccessOrderMax cudaMemcpySrcAccessOrderStream cudaMemoryAdvise
    cudaMemoryType cudaMemoryTypeDevice cudaMemoryTypeHost cudaMemoryTypeManaged
    cudaMemoryTypeUnregistered cudaMemsetParams cudaMemsetParamsV2 cudaMipmappedArray
    cudaMipmappedArray_const_t cudaMipmappedArray_t cudaNvSciSyncAttrSignal
    cudaNvSciSyncAttrWait cudaOccupancyDefault cudaOccupancyDisableCachingOverride
    cudaOffset3D cudaPeerAccessDefault cudaPitchedPtr cudaPointerAttributes cudaPos
    cudaPreferBinary cudaPreferPtx cudaReadModeElementType cudaReadModeNormalizedFloat
    cudaResViewFormatFloat1 cudaResViewFormatFloat2 cudaResViewFormatFloat4
    cudaResViewFormatHalf1 cudaResViewFormatHalf2 cudaResViewFormatHalf4
    cudaResViewFormatNone cudaResViewFormatSignedBlockCompressed4
    cudaResViewFormatSignedBlockCompressed5 cudaResViewFormatSignedBlockCompressed6H
    cudaResViewFormatSignedChar1 cudaResViewFormatSignedChar2
    cudaResViewFormatSignedChar4 cudaResViewFormatSignedInt1 cudaResViewFormatSignedInt2
    cudaResViewFormatSignedInt4 cudaResViewFormatSignedShort1
    cudaResViewFormatSignedShort2 cudaResViewFormatSignedShort4
    cudaResViewFormatUnsignedBlockCompressed1 cudaResViewFormatUnsignedBlockCompressed2
    cudaResViewFormatUnsignedBlockCompressed3 cudaResViewFormatUnsignedBlockCompressed4
    cudaResViewFormatUnsignedBlockCompressed5 cudaResViewFormatUnsignedBlockCompressed6H
    cudaResViewFormatUnsignedBlockCompressed7 cudaResViewFormatUnsignedChar1
    cudaResViewFormatUnsignedChar2 cudaResViewFormatUnsignedChar4
    cudaResViewFormatUnsignedInt1 cudaResViewFormatUnsignedInt2
    cudaResViewFormatUnsignedInt4 cudaResViewFormatUnsignedShort1
    cudaResViewFormatUnsignedShort2 cudaResViewFormatUnsignedShort4 cudaResourceDesc
    cudaResourceType cudaResourceTypeArray cudaResourceTypeLinear
    cudaResourceTypeMipmappedArray cudaResourceTypePitch2D cudaResourceViewDesc
    cudaResourceViewFormat cudaRoundMinInf cudaRoundMode cudaRoundNearest
    cudaRoundPosInf cudaRoundZero cudaSharedCarveout cudaSharedMemBankSizeDefault
    cudaSharedMemBankSizeEightByte cudaSharedMemBankSizeFourByte cudaSharedMemConfig
    cudaSharedmemCarveoutDefault cudaSharedmemCarveoutMaxL1
    cudaSharedmemCarveoutMaxShared cudaStreamAddCaptureDependencies cudaStreamAttrID
    cudaStreamAttrValue cudaStreamAttributeAccessPolicyWindow
    cudaStreamAttributeMemSyncDomain cudaStreamAttributeMemSyncDomainMap
    cudaStreamAttributePriority cudaStreamAttributeSynchronizationPolicy
    cudaStreamCaptureMode cudaStreamCaptureModeGlobal cudaStreamCaptureModeRelaxed
    cudaStreamCaptureModeThreadLocal cudaStreamCaptureStatus
    cudaStreamCaptureStatusActive cudaStreamCaptureStatusInvalidated
    cudaStreamCaptureStatusNone cudaStreamDefault cudaStreamLegacy cudaStreamNonBlocking
    cudaStreamPerThread cudaStreamSetCaptureDependencies
    cudaStreamUpdateCaptureDependenciesFlags cudaStream_t cudaSuccess
    cudaSurfaceBoundaryMode cudaSurfaceFormatMode cudaSurfaceObject_t cudaSurfaceType1D
    cudaSurfaceType1DLayered cudaSurfaceType2D cudaSurfaceType2DLayered
    cudaSurfaceType3D cudaSurfaceTypeCubemap cudaSurfaceTypeCubemapLayered
    cudaSyncPolicyAuto cudaSyncPolicyBlockingSync cudaSyncPolicySpin cudaSyncPolicyYield
    cudaSynchronizationPolicy cudaTextureAddressMode cudaTextureDesc
    cudaTextureFilterMode cudaTextureObject_t cudaTextureReadMode cudaTextureType1D
    cudaTextureType1DLayered cudaTextureType2D cudaTextureType2DLayered
    cudaTextureType3D cudaTextureTypeCubemap cudaTextureTypeCubemapLayered cudaUUID_t
    cudaUserObjectFlags cudaUserObjectNoDestructorSync cudaUserObjectRetainFlags
    cudaUserObject_t cudalibraryHostUniversalFunctionAndDataTable cyl_bessel_i0
    cyl_bessel_i0f cyl_bessel_i1 cyl_bessel_i1f dadd dim3 dmul double1 double2
    double2int double2ll double2uint double2ull double3 double4 double4_16a double4_32a
    dsub erf erfc erfcf erfcinv erfcinvf erfcx erfcxf erff erfinv erfinvf exp exp10
    exp10f exp2 exp2f expf expm1 expm1f fabs fabsf fdim fdimf fdivide fdividef float1
    float2 float2double float3 float4 floor floorf fma fmaf fmax fmaxf fmin fminf fmod
    fmodf free frexp frexpf gridDim h2ceil h2cos h2exp h2exp10 h2exp2 h2floor h2log
    h2log10 h2log2 h2rcp h2rint h2rsqrt h2sin h2sqrt h2tanh h2tanh_approx h2trunc half
    half2 hceil hcos hexp hexp10 hexp2 hfloor hlog hlog10 hlog2 hrcp hrint hrsqrt hsin
    hsqrt htanh htanh_approx htrunc hypot hypotf ilogb ilogbf int1 int16_t int2
    int2double int3 int32_t int4 int64_t int8_t isfinite isinf isnan j0 j0f j1 j1f jn
    jnf labs ldexp ldexpf lgamma lgammaf libraryPropertyType libraryPropertyType_t
    ll2double llabs llmax llmin llrint llrintf llround llroundf log log10 log10f log1p
    log1pf log2 log2f logb logbf logf long1 long2 long3 long4 long4_16a long4_32a
    longlong1 longlong2 longlong3 longlong4 longlong4_16a longlong4_32a lrint lrintf
    lround lroundf make_bfloat162 make_char1 make_char2 make_char3 make_char4
    make_double1 make_double2 make_double3 make_double4 make_double4_16a
    make_double4_32a make_float1 make_float2 make_float3 make_float4 make_half2
    make_int1 make_int2 make_int3 make_int4 make_long1 make_long2 make_long3 make_long4
    make_longlong1 make_longlong2 make_longlong3 make_longlong4 make_short1 make_short2
    make_short3 make_short4 make_uchar1 make_uchar2 make_uchar3 make_uchar4 make_uint1
    make_uint2 make_uint3 make_uint4 make_ulong1 make_ulong2 make_ulong3 make_ulong4
    make_ulonglong1 make_ulonglong2 make_ulonglong3 make_ulonglong4 make_ushort1
    make_ushort2 make_ushort3 make_ushort4 malloc max memcpy memset min modf modff nan
    nanf nearbyint nearbyintf nextafter nextafterf norm norm3d norm3df norm4d norm4df
    normcdf normcdff normcdfinv normcdfinvf normf nv_bfloat16 nv_bfloat162 nv_half
    nv_half2 offsetof pow powf printf rcbrt rcbrtf remainder remainderf remquo remquof
    rhypot rhypotf rint rintf rnorm rnorm3d rnorm3df rnorm4d rnorm4df rnormf round
    roundf rsqrt rsqrtf scalbln scalblnf scalbn scalbnf short1 short2 short3 short4
    signbit sin sincos sincosf sincospi sincospif sinf sinh sinhf sinpi sinpif size_t
    sqrt sqrtf surf1DLayeredread surf1DLayeredwrite surf1Dread surf1Dwrite
    surf2DLayeredread surf2DLayeredwrite surf2Dread surf2Dwrite surf3Dread surf3Dwrite
    surfCubemapLayeredread surfCubemapLayeredwrite surfCubemapread surfCubemapwrite
    syncthreads_and syncthreads_count syncthreads_or tan tanf tanh tanhf tex1D tex1DGrad
    tex1DLayered tex1DLayeredGrad tex1DLayeredLod tex1DLod tex1Dfetch tex2D tex2DGrad
    tex2DLayered tex2DLayeredGrad tex2DLayeredLod tex2DLod tex2Dgather tex3D tex3DGrad
    tex3DLod texCubemap texCubemapGrad texCubemapLayered texCubemapLayeredGrad
    texCubemapLayeredLod texCubemapLod tgamma tgammaf threadIdx trunc truncf uchar1
    uchar2 uchar3 uchar4 uint1 uint16_t uint2 uint2double uint3 uint32_t uint4 uint64_t
    uint8_t ull2double ullmax ullmin ulong1 ulong2 ulong3 ulong4 ulong4_16a ulong4_32a
    ulonglong1 ulonglong2 ulonglong3 ulonglong4 ulonglong4_16a ulonglong4_32a umax umin
    ushort1 ushort2 ushort3 ushort4 warpSize y0 y0f y1 y1f yn ynf
    """.split())
